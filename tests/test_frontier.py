"""The cost–time frontier (``procure frontier``): hand-worked points, every point against a brute force over
node counts, offers and starts (tests/helpers.brute_force_tco, which prices from the quotes and the
documented rules), monotone, the first point equal to ``procure solve``, and the doors (CLI, workbook, JSON).

Hours per shape are fixed (a stand-in for the sizing engine), so each point can be worked out on paper."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import openpyxl
import pytest

from procure.analysis.frontier import completion, trace
from procure.reports.frontier_report import frontier_to_json, point_sentence

from helpers import ROOT, brute_force_tco, cli, fixed_sizings, offer, project, recalculating_profile, workload

SOFFICE = shutil.which("soffice")
EXDIR = ROOT / "examples"


def wl(name, deadline, earliest=0):
    return workload(name=name, deadline_days=deadline, earliest_start_days=earliest)


def frontier_of(p, offers, hours, points=50, jobs=None):
    sizings, resize = fixed_sizings(p, offers, hours)
    return trace(p, offers, sizings, resize, points=points, jobs=jobs)


# --- one job on three shapes of one cloud offer: the frontier worked by hand ------------------------------

# 1 node 480 h, 2 nodes 260 h, 4 nodes 140 h at 10 per node-hour, period 1 day, from day 0, due day 30:
#   1 node: 4,800, ends day 480/24 = 20;  2 nodes: 5,200, day 260/24 = 10.83;  4 nodes: 5,600, day 140/24 = 5.83
ONE = {("job", "c", 1): 480.0, ("job", "c", 2): 260.0, ("job", "c", 4): 140.0}


def one_job():
    p = project([wl("job", 30)], period_days=1, electricity_price_per_kwh=0)
    return p, [offer(mode="cloud", id="c", price_per_node_hour=10.0, max_nodes=4)]


def test_one_job_frontier_is_the_three_shapes_by_hand():
    p, offers = one_job()
    f = frontier_of(p, offers, ONE)
    assert [round(x.total_cost, 6) for x in f.points] == [4800.0, 5200.0, 5600.0]
    assert [x.completion_day for x in f.points] == pytest.approx([20.0, 260 / 24, 140 / 24])
    assert [a.nodes for x in f.points for a in x.plan.assignments] == [1, 2, 4]
    assert f.fastest_proven and not f.note
    # "finishing 9.2 days sooner costs 400 USD: job: 2 nodes (16 × H100-SXM-80GB) instead of 1 node (8 GPUs) (cloud, c)":
    # nodes and the GPUs in them, never a bare count a reader could take for GPUs
    s = point_sentence(f, f.points[1])
    assert s.startswith("finishing 9.2 days sooner costs 400")
    assert "job: 2 nodes (16 × H100-SXM-80GB) instead of 1 node (8 GPUs) (cloud, c)" in s


def test_fewer_points_keep_the_cheapest_and_the_fastest():
    p, offers = one_job()
    f = frontier_of(p, offers, ONE, points=2)
    assert [round(x.total_cost, 6) for x in f.points] == [4800.0, 5600.0]


def test_a_job_that_cannot_be_sped_up_says_so():
    p, offers = one_job()
    f = frontier_of(p, offers, {("job", "c", 1): 480.0})
    assert len(f.points) == 1
    assert "already the fastest" in f.note


# --- two jobs sharing capped offers: every point against the brute force -------------------------------
# (max_nodes makes the jobs compete for the fast offer, so the cheapest way to finish sooner is not per job)

TWO_OFFERS = [
    offer(mode="cloud", id="slow", gpu="A100-SXM-80GB", price_per_node_hour=12.0, max_nodes=4),
    offer(mode="cloud", id="fast", gpu="H100-SXM-80GB", price_per_node_hour=30.0, max_nodes=2),
]
TWO_HOURS = {
    ("a", "slow", 1): 600.0,
    ("a", "slow", 2): 320.0,
    ("a", "slow", 4): 170.0,
    ("a", "fast", 1): 260.0,
    ("a", "fast", 2): 140.0,
    ("b", "slow", 1): 200.0,
    ("b", "slow", 2): 110.0,
    ("b", "fast", 1): 90.0,
}


def two_jobs(deadline_a=60, deadline_b=60, earliest_b=0):
    p = project([wl("a", deadline_a), wl("b", deadline_b, earliest_b)], period_days=7, electricity_price_per_kwh=0)
    return p


def oracle_by(day: int, deadline_a=60, deadline_b=60, earliest_b=0) -> float:
    """The least TCO of a plan that ends both jobs by ``day``: the brute force on the deadlines lowered by hand."""
    p = two_jobs(min(deadline_a, day), min(deadline_b, day), earliest_b)
    return brute_force_tco(p, TWO_OFFERS, TWO_HOURS)


@pytest.mark.parametrize("earliest_b", [0, 10])
def test_every_point_is_the_brute_force_optimum_at_its_day_and_a_breakpoint(earliest_b):
    p = two_jobs(earliest_b=earliest_b)
    f = frontier_of(p, TWO_OFFERS, TWO_HOURS)
    assert len(f.points) >= 3
    for pt in f.points:
        # completion at confidence 0.5 (tests/helpers.project): the median end, the day the deadline rule checks
        day = math.ceil(pt.completion_day - 1e-9)  # deadlines are whole days
        assert pt.total_cost == pytest.approx(oracle_by(day, earliest_b=earliest_b), abs=1e-6)
        # a day sooner is dearer (or impossible): the point is where the cheaper plans stop fitting
        assert oracle_by(day - 1, earliest_b=earliest_b) > pt.total_cost + 1e-6
    # the brute force's breakpoints, day by day from the cheapest plan's completion down, are the frontier's costs
    costs_by_day = {}
    c0 = math.ceil(f.points[0].completion_day - 1e-9)
    for day in range(c0, 0, -1):
        v = oracle_by(day, earliest_b=earliest_b)
        if math.isinf(v):
            break
        costs_by_day[day] = v
    expected = sorted(set(round(v, 6) for v in costs_by_day.values()))
    assert [round(x.total_cost, 6) for x in f.points] == expected


def test_points_are_monotone_and_verified_and_the_first_is_the_plan():
    from helpers import solve_fixed

    p = two_jobs()
    f = frontier_of(p, TWO_OFFERS, TWO_HOURS)
    plain = solve_fixed(p, TWO_OFFERS, TWO_HOURS, compare=False, all_or_nothing=False)
    assert f.points[0].total_cost == pytest.approx(plain.plan.total_cost, abs=0.005)
    days = [x.completion_day for x in f.points]
    costs_ = [x.total_cost for x in f.points]
    assert days == sorted(days, reverse=True) and len(set(days)) == len(days)
    assert costs_ == sorted(costs_) and len(set(round(c, 6) for c in costs_)) == len(costs_)
    for x in f.points:
        assert x.status == "optimal"  # plan_from_sizings verified it (solver.verify) before returning it
        assert completion(x.plan, ("a", "b"), 0.5)[0] == pytest.approx(x.completion_day)


def test_tracing_one_job_leaves_the_others_deadlines():
    p = two_jobs(earliest_b=10)
    f = frontier_of(p, TWO_OFFERS, TWO_HOURS, jobs=["a"])
    assert f.jobs == ("a",)
    for x in f.points:
        b = next(a for a in x.plan.assignments if a.workload == "b")
        assert b.end_day <= 60 + 1e-9
    ends_a = [next(a for a in x.plan.assignments if a.workload == "a").end_day for x in f.points]
    assert ends_a == sorted(ends_a, reverse=True)


def test_an_unknown_job_is_bad_input_with_a_suggestion():
    from procure.common.errors import InputError

    p = two_jobs()
    with pytest.raises(InputError, match=r"'aa' \(did you mean 'a'\?\)"):
        frontier_of(p, TWO_OFFERS, TWO_HOURS, jobs=["aa"])


def test_json_carries_each_point_and_its_changes():
    p, offers = one_job()
    data = frontier_to_json(frontier_of(p, offers, ONE))
    assert [x["total_cost"] for x in data["points"]] == [4800.0, 5200.0, 5600.0]
    assert [x["extra_cost"] for x in data["points"]] == [0.0, 400.0, 800.0]
    assert (
        data["points"][2]["changes"][0]["text"]
        == "job: 4 nodes (32 × H100-SXM-80GB) instead of 1 node (8 GPUs) (cloud, c)"
    )
    json.dumps(data)


# --- the command line ---------------------------------------------------------------------------------


def test_cli_frontier_writes_the_workbook_with_a_date_axis_chart_and_formulas(tmp_path):
    out, js = tmp_path / "f.xlsx", tmp_path / "f.json"
    r = cli("frontier", str(EXDIR / "qlora-7b-week.yaml"), "--points", "4", "--out", str(out), "--json", str(js))
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert len(data["points"]) >= 2
    wb = openpyxl.load_workbook(out)
    ws = wb["Frontier"]
    assert ws["G7"].value == "=E7-E$6" and ws["I7"].value == '=IF(H7>0,G7/H7,"")'
    # a scatter on a date value axis: points a day apart sit a day apart, time runs left to right (a line
    # chart's category axis spaced the points evenly, in the table's falling date order)
    (chart,) = ws._charts
    assert type(chart).__name__ == "ScatterChart" and chart.x_axis.number_format.formatCode == "yyyy-mm-dd"
    (series,) = chart.series
    assert series.xVal.numRef.f == f"'Frontier'!$C$6:$C${5 + len(data['points'])}"
    assert series.yVal.numRef.f == f"'Frontier'!$E$6:$E${5 + len(data['points'])}"
    assert chart.x_axis.scaling.orientation == "minMax" and chart.x_axis.scaling.min < chart.x_axis.scaling.max
    cached = openpyxl.load_workbook(out, data_only=True)["Frontier"]
    assert cached["G7"].value == pytest.approx(data["points"][1]["extra_cost"], abs=0.01)


@pytest.mark.parametrize(
    "args, phrase",
    [
        (["--points", "1"], "--points"),
        (["--jobs", "nope"], "no workload named 'nope'"),
        (["--jobs", ","], "--jobs"),
        (["--out", "f.txt"], ".xlsx"),
    ],
)
def test_cli_frontier_bad_input_exits_1(args, phrase, tmp_path):
    r = cli("frontier", str(EXDIR / "qlora-7b-week.yaml"), *[a if a != "f.txt" else str(tmp_path / a) for a in args])
    assert r.exit_code == 1, r.output
    assert phrase in r.output


def test_cli_frontier_refuses_to_overwrite_its_workload(tmp_path):
    src = tmp_path / "w.yaml"
    src.write_text((EXDIR / "qlora-7b-week.yaml").read_text())
    before = src.read_text()
    r = cli("frontier", str(src), "--json", str(src))
    assert r.exit_code == 1, r.output
    assert src.read_text() == before


def test_solve_with_frontier_adds_the_sheet_and_the_json(tmp_path):
    out, js = tmp_path / "r.xlsx", tmp_path / "r.json"
    r = cli(
        "solve", str(EXDIR / "qlora-7b-week.yaml"), "--frontier", "3", "--runner-ups", "0", "--no-compare",
        "--out", str(out), "--json", str(js),
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["frontier"]["points"][0]["total_cost"] == pytest.approx(data["total_cost"], abs=0.01)
    assert "Frontier" in openpyxl.load_workbook(out).sheetnames
    assert "What sooner costs" in r.output


@pytest.mark.slow
def test_the_12_month_programme_has_five_distinct_points_from_the_plan(tmp_path):
    # the pretraining's completion: the whole programme's ends with the last monthly fine-tune, which cannot start
    # before day 365 whatever is paid (three points at the bundled prices of 2026-12)
    js = tmp_path / "f.json"
    r = cli(
        "frontier", str(EXDIR / "programme-12-months.yaml"), "--jobs", "pretrain-7b", "--points", "8", "--json", str(js)
    )
    assert r.exit_code == 0, r.output
    pts = json.loads(js.read_text())["points"]
    assert len({(p["completion_day"], p["total_cost"]) for p in pts}) >= 5
    solved = tmp_path / "s.json"
    r = cli(
        "solve", str(EXDIR / "programme-12-months.yaml"), "--runner-ups", "0", "--no-compare", "--json", str(solved)
    )
    assert r.exit_code == 0, r.output
    assert pts[0]["total_cost"] == pytest.approx(json.loads(solved.read_text())["total_cost"], abs=0.005)
    assert [p["total_cost"] for p in pts] == sorted(p["total_cost"] for p in pts)


@pytest.mark.soffice
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed: cannot recalculate the workbook")
def test_the_frontier_workbook_recalculates_to_its_cached_values(tmp_path):
    out = tmp_path / "f.xlsx"
    r = cli("frontier", str(EXDIR / "qlora-7b-week.yaml"), "--points", "4", "--out", str(out))
    assert r.exit_code == 0, r.output
    redone = tmp_path / "recalculated"
    subprocess.run(
        [SOFFICE, f"-env:UserInstallation={recalculating_profile(tmp_path / 'lo')}", "--headless", "--calc",
         "--convert-to", "xlsx", "--outdir", str(redone), str(out)],
        check=True, capture_output=True, timeout=240,
    )  # fmt: skip
    cached = openpyxl.load_workbook(out, data_only=True)["Frontier"]
    again = openpyxl.load_workbook(redone / "f.xlsx", data_only=True)["Frontier"]
    checked = 0
    for row in range(6, cached.max_row + 1):
        for col in (7, 8, 9):
            a, b = cached.cell(row, col).value, again.cell(row, col).value
            if isinstance(a, (int, float)):
                assert b == pytest.approx(a, abs=0.01), (row, col)
                checked += 1
    assert checked >= 3
    with open(redone / "f.xlsx", "rb") as fh:
        import zipfile

        assert any("chart" in n for n in zipfile.ZipFile(fh).namelist())


@pytest.mark.slow
def test_the_readme_quotes_the_pretraining_frontier_as_it_is(tmp_path):
    js = tmp_path / "f.json"
    r = cli("frontier", str(EXDIR / "programme-12-months.yaml"), "--jobs", "pretrain-7b", "--json", str(js))
    assert r.exit_code == 0, r.output
    pts = json.loads(js.read_text())["points"]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    second = pts[1]
    assert f"finishing {second['days_sooner']:.1f} days sooner costs {second['extra_cost']:,.0f} USD" in readme
    assert f"{len(pts)} points in all" in readme.replace("six points", "6 points")
    assert f"({pts[0]['total_cost']:,.0f} USD)" in readme


def test_a_point_that_costs_no_less_than_a_sooner_one_is_left_out():
    """Solved only to a gap, a point can cost as much as one that ends sooner (day 40.5 at 23,000 beside day 39.5
    at 23,000): it is not on the frontier, so it is left out and counted, never shown marked. The same holds for
    the first point, the recommended plan, and for two points ending the same day."""
    from types import SimpleNamespace

    from procure.analysis.frontier import FrontierPoint, non_dominated
    from procure.solver.enums import Objective

    def point(day, cost):
        plan = SimpleNamespace(total_cost=cost, npv_cost=cost)
        return FrontierPoint(SimpleNamespace(planned=lambda: plan), day, day, day)

    first, tied, sooner, fastest = point(45.0, 20_000), point(40.5, 23_000), point(39.5, 23_000), point(30, 30_000)
    assert non_dominated([first, tied, sooner, fastest], Objective.TCO) == [first, sooner, fastest]
    dearer = point(41.0, 23_500)  # dearer than a plan ending sooner: out too
    assert non_dominated([first, dearer, sooner, fastest], Objective.TCO) == [first, sooner, fastest]
    same = point(44.0, 20_000)  # the recommended plan ties a plan ending a day sooner: the curve starts there
    assert non_dominated([first, same, fastest], Objective.TCO) == [same, fastest]
    twin = point(30, 31_000)  # ends the same day as the fastest, for more: out
    assert non_dominated([first, twin, fastest], Objective.TCO) == [first, fastest]
