"""Partial plans: a job that cannot run is set aside with its reasons and the rest is planned; a budget
that cannot cover every job plans the most jobs it can, then the cheapest such set."""

from __future__ import annotations

import csv
import io
import json

import openpyxl
import pytest

from procure.common.errors import ExitCode
from procure.offers.catalog import load_catalog
from procure.solver.planner import plan_project
from procure.solver.verify import verify_plan

from helpers import ROOT, cli, offer, project, solve_fixed, workload

LAB = ROOT / "examples" / "small-lab.yaml"
ADAPTER_JOBS = ["support-qlora-8b", "code-lora-7b", "chat-lora-7b"]


def test_small_lab_plans_the_three_adapter_jobs_and_names_the_67b_set_aside(tmp_path):
    out, js, folder = tmp_path / "lab.xlsx", tmp_path / "lab.json", tmp_path / "csv"
    res = cli("solve", LAB, "--runner-ups", "0", "--out", out, "--json", js, "--csv", folder)
    assert res.exit_code == ExitCode.PARTIAL == 5, res.output
    flat = " ".join(res.output.split())
    assert "3 of 4 jobs planned; legal-67b-full cannot run on these offers (" in flat
    # The 67B full fine-tune (P = 67.425e9) fits GPU memory only with ZeRO-3 + ZeRO-Offload, and host RAM is a
    # fit rule (issue 51): on the one 4 × RTX A6000 node the offloaded state is 4 GPUs × 16 B × 1.5 (DeepSpeed's
    # buffer factor) × P / 4 = 24 × 67.425e9 = 1,618.2 GB, the staged checkpoint the bf16 weights 2 × P =
    # 134.85 GB, plus 16 GB system and 4 × 8 GB per GPU: 1,801 GB per node against its 384 GB.
    assert "host RAM (2 offers): needs 1,801 GB per node, 384 GB installed on lab-4x-rtx-a6000" in flat
    assert "set aside: legal-67b-full" in flat
    j = json.loads(js.read_text())
    assert [a["workload"] for a in j["assignments"]] == ADAPTER_JOBS
    assert j["headline"].startswith("3 of 4 jobs planned; legal-67b-full cannot run on these offers (")
    [aside] = j["set_aside"]
    assert aside["workload"] == "legal-67b-full" and aside["cause"] == "fit" and aside["rules"] == ["host_ram"]
    assert any(r["workload"] == "legal-67b-full" and r["rule"] == "host_ram" for r in j["rejected"])
    # the plan's cost is the planned jobs' alone: the cost breakdown sums to it
    assert sum(j["cost_breakdown"].values()) == pytest.approx(j["total_cost"], abs=0.05)
    # what the workbook shows is in the JSON too: the Costs sheet's lines, the Cash flow months, the Options sheet
    assert sum(i["amount"] for i in j["line_items"]) == pytest.approx(j["total_cost"], abs=0.5)
    assert len(j["cash_flow"]) == 24 and j["cash_flow"][-1]["cumulative"] == pytest.approx(j["total_cost"], abs=0.5)
    assert sorted(o["workload"] for o in j["options"] if o["chosen"]) == sorted(ADAPTER_JOBS)
    assert all(a["slack_days"] == pytest.approx(a["deadline_day"] - a["end_day"], abs=1e-3) for a in j["assignments"])
    assert any(x["section"] == "Workloads" and x["item"] == "legal-67b-full" for x in j["assumptions"])
    with open(folder / "set_aside.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["workload"] for r in rows] == ["legal-67b-full"] and "host RAM" in rows[0]["summary"]
    with open(folder / "summary.csv", newline="", encoding="utf-8") as fh:
        summary = {r["figure"]: r["value"] for r in csv.DictReader(fh)}
    assert summary["headline"] == j["headline"]
    ws = openpyxl.load_workbook(out)["Summary"]
    texts = [str(c.value) for row in ws.iter_rows() for c in row if c.value is not None]
    assert j["headline"] in texts and "Set aside: jobs not in this plan" in texts and "legal-67b-full" in texts


def test_the_partial_plan_is_verified_for_the_planned_jobs():
    p = LAB
    from procure.models.project import load_project

    prog, _w = load_project(p)
    cat = load_catalog([ROOT / "examples" / "small-lab-offers.yaml"])
    result = plan_project(prog, cat.offers, compare=False, n_runner_ups=0)
    assert [w.name for w in result.project.workloads] == ADAPTER_JOBS
    assert result.programme is prog and [x.workload for x in result.set_aside] == ["legal-67b-full"]
    verify_plan(result.project, result.offers, result.plan)  # the verifier's rules hold for the three planned jobs
    with pytest.raises(Exception, match="legal-67b-full"):  # and the whole programme is, rightly, not met by it
        verify_plan(prog, result.offers, result.plan)


def test_all_or_nothing_restores_no_plan_and_exit_2(tmp_path):
    out = tmp_path / "lab.xlsx"
    res = cli("solve", LAB, "--all-or-nothing", "--no-compare", "--runner-ups", "0", "--out", out)
    assert res.exit_code == ExitCode.INFEASIBLE == 2, res.output
    assert "INFEASIBLE" in res.output and "legal-67b-full" in res.output and not out.exists()


def _three_cloud_jobs(**kw):
    """Three jobs on one uncapped cloud offer at 30 per node-hour, 1 node each: a 100 h, b 200 h, c 300 h."""
    cloud = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [
            workload(name="a", deadline_days=60),
            workload(name="b", deadline_days=60),
            workload(name="c", deadline_days=60),
        ],
        **kw,
    )
    hours = {("a", "c", 1): 100.0, ("b", "c", 1): 200.0, ("c", "c", 1): 300.0}
    return p, [cloud], hours


def test_a_budget_that_cannot_cover_every_job_plans_the_most_jobs_then_the_cheapest_set():
    # costs 30 × 100 = 3,000, 30 × 200 = 6,000, 30 × 300 = 9,000; all three 18,000 > 12,500.
    # Pairs: a+b 9,000 ✓, a+c 12,000 ✓, b+c 15,000 ✗ → two jobs at most; the cheapest pair is a+b.
    p, offers, hours = _three_cloud_jobs(budget_tco=12_500)
    res = solve_fixed(p, offers, hours, compare=False, all_or_nothing=False)
    assert sorted(a.workload for a in res.plan.assignments) == ["a", "b"]
    assert res.plan.total_cost == pytest.approx(30 * 100 + 30 * 200, abs=0.01)
    [aside] = res.set_aside
    assert aside.workload == "c" and aside.cause == "budget" and "covers 2 of the 3 jobs" in aside.summary
    assert any("budget_tco" in line for line in aside.reasons)


def test_a_budget_partial_plan_is_all_or_nothing_when_asked():
    p, offers, hours = _three_cloud_jobs(budget_tco=12_500)
    res = solve_fixed(p, offers, hours, compare=False, all_or_nothing=True)
    assert res.plan is None and res.status == "infeasible" and not res.set_aside
    assert "(budget)" in res.hybrid.reasons


def test_a_runner_up_the_capex_budget_excludes_says_so():
    # the job on the cloud: 30 × 100 = 3,000; on the buy offer it needs one 250,000 node, over budget_capex 100,000
    buy, cloud = offer(id="b", mode="buy"), offer(id="c", mode="cloud", price_per_node_hour=30.0)
    p = project([workload(name="a", deadline_days=60)], budget_capex=100_000)
    res = solve_fixed(p, [buy, cloud], {("a", "b", 1): 100.0, ("a", "c", 1): 100.0}, compare=False, n_runner_ups=1)
    assert res.plan.assignments[0].offer_id == "c"
    [up] = res.runner_ups["a"]
    assert up.option.offer_id == "b" and up.plan_cost is None and up.cause == "(budget)"
    assert up.note.startswith("no plan: excluded by the budget") and "budget_capex" in up.note
    from procure.reports.tables import runner_up_rows

    [row] = runner_up_rows(res)
    assert row["why"] == "budget"
    from procure.reports.xlsx.workbook import workbook_bytes

    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(res, [])))["Options"]
    start = next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 1).value).startswith("Runner-up offers"))
    assert ws.cell(start + 1, 11).value == "why not" and ws.cell(start + 2, 11).value == "budget"
    assert str(ws.cell(start + 2, 12).value).startswith("no plan: excluded by the budget")


@pytest.mark.parametrize("seed", range(40))
def test_partial_plan_is_the_largest_then_cheapest_feasible_set_by_brute_force(seed):
    """The rule, checked against brute force over every set of jobs: most jobs planned, then the least TCO."""
    import itertools

    from helpers import brute_force_tco
    from oracle_answers import random_instance

    p, offers, hours = random_instance(seed)
    if seed % 3 == 0:  # no shape of any offer for w0: set aside for fit
        hours = {key: h for key, h in hours.items() if key[0] != "w0"}
    else:  # a budget at 60% of the whole programme's optimum: it cannot cover every job
        full = brute_force_tco(p, offers, hours)
        if full < float("inf"):
            p = p.model_copy(update={"budget_tco": 0.6 * full})
    names = [w.name for w in p.workloads]
    best: tuple[int, float] | None = None
    for k in range(len(names), 0, -1):
        costs = []
        for keep in itertools.combinations(names, k):
            sub = p.model_copy(update={"workloads": [w for w in p.workloads if w.name in keep]})
            tco = brute_force_tco(sub, offers, {key: h for key, h in hours.items() if key[0] in keep})
            # a TCO cap holds a set of jobs exactly when that set's least TCO is within it
            costs.append(tco if p.budget_tco is None or tco <= p.budget_tco + 1e-6 else float("inf"))
        if min(costs) < float("inf"):
            best = (k, min(costs))
            break
    res = solve_fixed(p, offers, hours, compare=False, all_or_nothing=False)
    if best is None:
        assert res.plan is None
        return
    assert len(res.plan.assignments) == best[0] and len(res.set_aside) == len(names) - best[0]
    assert res.plan.total_cost == pytest.approx(best[1], rel=1e-6)
    assert sorted([a.workload for a in res.plan.assignments] + [x.workload for x in res.set_aside]) == sorted(names)


def test_analyze_of_a_partial_plan_analyses_the_planned_jobs_and_exits_5():
    res = cli("analyze", LAB, "--break-even", "--workers", "1")
    assert res.exit_code == ExitCode.PARTIAL, res.output
    flat = " ".join(res.output.split())
    assert "3 of 4 jobs planned; legal-67b-full cannot run on these offers" in flat and "lab-8x-rtx-4090" in flat
