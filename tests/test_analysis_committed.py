"""The decision under uncertainty: the committed plan's cost ("here and now"), its one re-cost, the risk line
kept on the result, and the tornado on the decided plan. Cases worked out by hand.

The hand-worked case (tests/helpers.py ``analysis_case``): one 90-day job (2,160 h on one node) due day 120,
a 12-month horizon, electricity 0; today's plans per strategy:

    hybrid / cloud  cloud c, 2,160 h × 20/h                       = 43,200
    buy             buy b, 100,000 × (1 − 0.5 residual)           = 50,000   (hours cost nothing more)
    rent            rent r, 3 months × 20,000 (days 0–91.3)       = 60,000   (a 4th month when the job runs past
                                                                              day 91.3125: 80,000)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from procure.analysis import Context, montecarlo as mc
from procure.analysis.engine import evaluate_scenario, solve_scenario
from procure.analysis.recourse import RECOURSE_LP, RECOURSE_MIP, hindsight_lp, realized_applied
from procure.analysis.scenario import Scenario
from procure.solver.plan import build_plan
from procure.solver.sizing.band import confidence_of as confidence
from procure.solver.verify import verify_plan

from helpers import UNCERTAIN, analysis_case as case, analysis_run as run, offer, project, solve_fixed, workload

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _rent_cost(t: float) -> float:
    # contract months from 2027-01-01: three of them end on 2027-04-01, day 90
    months = 3 if 90 * t <= 90 + 1e-9 else 4
    return months * 20_000.0


def test_the_committed_plan_is_todays_plan_re_costed_where_it_runs():
    p, offers, hours = case({**UNCERTAIN, "uncertainty": {**UNCERTAIN["uncertainty"], "mfu": None}})
    a = run(p, offers, hours, monte_carlo=30, bounds=10)
    assert a.monte_carlo_mode == "policy" and a.summary.mode == "policy" and a.summary.committed
    for o in a.monte_carlo:
        k, t = o.scenario.value("price_cloud"), o.scenario.value("tokens")
        free, buy, rent = (o.strategies[s] for s in ("hybrid", "buy", "rent"))
        # every strategy's plan of today runs as decided (the job ends by day 99 ≤ 120): the policy, no solve
        assert free.solved_by == buy.solved_by == rent.solved_by == "policy"
        assert free.runs_as_decided and not free.solved
        assert free.total_cost == pytest.approx(43_200 * k * t)
        assert buy.total_cost == pytest.approx(50_000)
        assert rent.total_cost == pytest.approx(_rent_cost(t))  # the contract extended by a month, not re-signed
    s = a.summary.strategies["hybrid"]
    costs = [43_200 * o.scenario.value("price_cloud") * o.scenario.value("tokens") for o in a.monte_carlo]
    assert (s["p10"], s["p50"], s["p90"]) == pytest.approx(mc.percentiles(costs))
    assert s["runs_as_decided"] == 1.0 and s["recourse_share"] == 0.0
    assert s["cheaper"]["buy"] == pytest.approx(sum(c < 50_000 - 0.01 for c in costs) / len(costs))
    # the value of waiting over the first 10 scenarios: in hindsight the cheaper of cloud c and buying
    waiting = [max(0.0, c - 50_000) for c in costs[:10]]
    v = s["value_of_waiting"]
    assert v["scenarios"] == 10
    assert v["low"] - 1e-6 <= sum(waiting) / 10 <= v["high"] + 0.02


def test_the_optimal_recourse_may_beat_the_policy_and_never_costs_more():
    # tokens × 1.3: the 90-day job takes 117 days (≤ 120). Policy: cloud c runs as decided, 43,200 × 1.3 =
    # 56,160; the rent plan's 3 signed months (to day 91.3) are extended by one (80,000). With the optimal
    # recourse asked for, the free strategy (nothing signed today) buys instead: 50,000; rent cannot do better
    # than the signed months plus one month of r (80,000).
    tokens = {"tokens": {"dist": "triangular", "low": 1.29, "mode": 1.3, "high": 1.31}, "mfu": None}
    p, offers, hours = case({"uncertainty": tokens})
    policy = run(p, offers, hours, monte_carlo=3, bounds=0)
    best = run(p, offers, hours, monte_carlo=3, monte_carlo_mode="recourse", bounds=0)
    for o, q in zip(policy.monte_carlo, best.monte_carlo, strict=True):
        t = o.scenario.value("tokens")
        assert o.strategies["hybrid"].solved_by == "policy"
        assert o.strategies["hybrid"].total_cost == pytest.approx(43_200 * t)
        assert q.strategies["hybrid"].solved_by in (RECOURSE_LP, RECOURSE_MIP)
        assert q.strategies["hybrid"].total_cost == pytest.approx(50_000)
        assert q.strategies["hybrid"].runs_as_decided  # the plan would have run; the recourse is cheaper
        for r in (o.strategies["rent"], q.strategies["rent"]):
            assert r.runs_as_decided and r.total_cost == pytest.approx(80_000)
    assert policy.summary.strategies["hybrid"]["runs_as_decided"] == 1.0


def test_a_plan_that_cannot_run_is_counted_with_its_reason():
    # tokens × 1.5: the job takes 135 days > its deadline 120 on the one node any offer runs it on: today's
    # plans break and no recourse can run it; every scenario is counted, none dropped
    tokens = {"tokens": {"dist": "triangular", "low": 1.45, "mode": 1.5, "high": 1.55}, "mfu": None}
    p, offers, hours = case({"uncertainty": tokens})
    a = run(p, offers, hours, monte_carlo=3, bounds=0)
    assert a.summary.failed == 3 and a.summary.decided_infeasible == 3
    for o in a.monte_carlo:
        free = o.strategies["hybrid"]
        assert not free.ok and free.runs_as_decided is False and "deadline" in free.detail
    assert a.summary.strategies["hybrid"]["plans"] == 0


def test_lp_bound_le_hindsight_optimum_le_committed_cost_per_scenario():
    # a sample of scenarios where prices and hours move and the hybrid plan can break: the hindsight LP bound,
    # the hindsight optimum (re-optimized, verified) and the committed plan's cost are ordered, per strategy
    extra = [offer(mode="rent", id="r2", price_per_node_month=26_000, min_term_months=1)]
    settings = {
        "uncertainty": {
            "price_cloud": {"dist": "triangular", "low": 0.8, "mode": 1.0, "high": 1.6},
            "price_rent": {"dist": "triangular", "low": 0.6, "mode": 1.0, "high": 1.2},
            "tokens": {"dist": "triangular", "low": 0.9, "mode": 1.0, "high": 1.3},
            "mfu": None,
        },
        "seed": 5,
    }
    p, offers, hours = case(settings, extra=extra)
    a = run(p, offers, hours)
    ctx = Context.of(a.inputs, a.base)
    for s in mc.draw(p.analysis, 8):
        committed = evaluate_scenario(ctx, s, "policy", bounds=True)
        hindsight = solve_scenario(ctx, s, keep_plans=True)
        ap = realized_applied(ctx.inputs.apply(s))
        for name, c in committed.strategies.items():
            h = hindsight.strategies[name]
            if not c.ok:
                continue
            assert h.ok, (s.label, name)
            # every plan verified: the hindsight one again here, on the scenario's own inputs
            verify_plan(ap.project, ap.offers, h.plan, ap.resize, ctx.modes[name])
            low = hindsight_lp(ap, name, ctx.modes[name], ctx.inputs.objective).low
            assert low is not None and c.ws_low == pytest.approx(low)
            assert low <= h.total_cost * (1 + 1e-9) + 0.02, (s.label, name)
            assert h.total_cost <= c.total_cost * (1 + 1e-9) + 0.02, (s.label, name)
            assert c.ws_low <= c.ws_high <= c.total_cost + 1e-6


# --- one re-cost: the risk line and the Monte Carlo's first step (issue: "the risk line must be true") -----


#: Days each back-to-back job takes at its estimate. B, due day 180, ends at 2 × JOB_DAYS × r when it starts as
#: A ends, so the plan runs as decided up to r* = 180 / (2 × JOB_DAYS) = 3. The jobs were 60 days while the band
#: was × 1.35 at P90; with the calibrated band (HOURS_BAND_P90 1.743, σ = ln 1.743 / 1.2816 = 0.434 above the
#: median) 60-day jobs leave r* = 1.5 < P90, so at P90 B ends on day 2 × 60 × 1.743 = 209 > 180 and a rental
#: is added (P90 280,000 against P50 240,000), and they run as decided with Φ(ln 1.5 / 0.434) = 83 % only.
#: 30-day jobs: at P90 B ends on day 2 × 30 × 1.743 = 104.6 ≤ 180, and Φ(ln 3 / 0.434) = 99.4 % > 95 %.
JOB_DAYS = 30


def _back_to_back():
    """Two JOB_DAYS-day jobs on 4 committed nodes of one rent offer (6 months signed, to day 182.6): A due day
    150, B due day 180, so B follows A on the same nodes with 180 − 2 × JOB_DAYS days to spare."""
    jobs = [
        workload(name="a", deadline_days=150, earliest_start_days=0),
        workload(name="b", deadline_days=180, earliest_start_days=0),
    ]
    p = project(
        jobs,
        electricity_price_per_kwh=0,
        commitments=[{"offer": "r", "nodes": 4, "start_date": "2027-01-01", "months": 6}],
    )
    offers = [offer(mode="rent", id="r", price_per_node_month=10_000, max_nodes=8)]
    hours = {(w, "r", 4): 24.0 * JOB_DAYS for w in ("a", "b")}
    return p, offers, hours


def test_back_to_back_jobs_on_committed_capacity_run_as_decided_and_rent_nothing():
    from procure.app import with_risk

    p, offers, hours = _back_to_back()
    res = with_risk(solve_fixed(p, offers, hours))
    starts = sorted(a.start_day for a in res.plan.assignments)
    assert starts[0] == 0 and starts[1] >= JOB_DAYS  # B after A on the same 4 nodes
    risk = res.risk
    # the commitment is paid whatever happens and both jobs fit inside it at the P90 hours (B starts when A ends):
    # no rental is added, so P90 is P50
    assert risk.tco_p90 == pytest.approx(risk.tco_p50)
    # it runs as decided while B meets its deadline (day 180, before the commitment ends on day 182.6)
    # B starts at max(s_B, D r) (when A is done) and ends D r later, by day 180: max(s_B, D r) + D r ≤ 180
    s_b, d = starts[1], JOB_DAYS
    r_star = 180 / (2 * d) if 2 * s_b <= 180 else (180 - s_b) / d
    assert risk.runs_as_decided == pytest.approx(confidence(r_star), abs=1.5e-3)
    assert risk.runs_as_decided > 0.95


def test_a_minutes_long_overlap_is_a_later_start_not_a_failure():
    from procure.analysis.recost import as_decided
    from procure.analysis.scenario import Baseline

    p, offers, hours = _back_to_back()
    res = solve_fixed(p, offers, hours)
    plan = res.plan
    a_job = next(d for d in plan.decisions if d.workload == "a")
    b_job = next(d for d in plan.decisions if d.workload == "b")
    # the hours factor that makes A end ten minutes after B's decided start
    r = (b_job.start_day + 10 / 1440) / JOB_DAYS
    base = Baseline(res.project, list(res.offers.values()), res.sizings, lambda *_: None)
    got = as_decided(plan, base.apply(Scenario.of("late", {"mfu": 1 / r})), r, res.hybrid.modes)
    assert got.runs and got.shifted == 1 and got.signed == 0
    moved = {x.workload: x.start_day for x in got.plan.assignments}
    assert moved["b"] == pytest.approx(a_job.start_day + JOB_DAYS * r)
    assert got.plan.total_cost == pytest.approx(plan.total_cost)  # nothing rented beside the commitment
    # the plan as priced is a plan of the cost model: the same decisions priced again give the same money
    again = build_plan(
        res.project, res.offers, [d for d in got.plan.decisions], {}, [x.contract for x in got.plan.rentals]
    )
    assert again.total_cost == pytest.approx(got.plan.total_cost)


def test_reports_read_the_risk_and_re_cost_nothing(monkeypatch, tmp_path):
    import io

    from rich.console import Console

    from procure.analysis import plan_risk, recost
    from procure.app import with_risk
    from procure.reports import console as console_report
    from procure.reports.json_report import result_to_json
    from procure.reports.xlsx.workbook import workbook_bytes
    from procure.solver import verify

    p, offers, hours = _back_to_back()
    res = with_risk(solve_fixed(p, offers, hours))
    calls = []

    def count(name, fn):
        def wrapped(*a, **k):
            calls.append(name)
            return fn(*a, **k)

        return wrapped

    monkeypatch.setattr(recost, "as_decided", count("as_decided", recost.as_decided))
    monkeypatch.setattr(plan_risk, "as_decided", count("as_decided", plan_risk.as_decided))
    monkeypatch.setattr(plan_risk, "plan_risk", count("plan_risk", plan_risk.plan_risk))
    monkeypatch.setattr(verify, "verify_plan", count("verify_plan", verify.verify_plan))
    monkeypatch.setattr(recost, "verify_plan", count("verify_plan", recost.verify_plan))
    doc = result_to_json(res)
    assert doc["range"]["tco_p50"] == pytest.approx(res.risk.tco_p50, abs=0.01)
    workbook_bytes(res, ())
    out = io.StringIO()
    console_report.print_result(Console(file=out, width=200), res)
    assert "P90" in out.getvalue()  # the range line is printed, from the result
    assert calls == []


def test_the_recourse_is_the_reference_solve_of_the_project_with_the_plan_signed():
    # the recourse model is the planner's own with the contracts as commitments: the reference path (CBC, as
    # procure solve runs it) on that project gives the same optimum, 3 signed months + one more of r = 80,000
    from procure.analysis.recost import as_decided
    from procure.analysis.recourse import recourse, signed_project
    from procure.solver.enums import Strategy
    from procure.solver.planner import run_strategy

    p, offers, hours = case()
    a = run(p, offers, hours)
    ctx = Context.of(a.inputs, a.base)
    ap = realized_applied(ctx.inputs.apply(Scenario.of("t", {"tokens": 1.3})))
    plan, modes = ctx.base_plans["rent"], ctx.modes["rent"]
    got = as_decided(plan, ap, 1.3, modes, ap.resize)
    assert got.runs and got.extended == 1 and got.plan.total_cost == pytest.approx(80_000)
    rec = recourse(plan, ap, "rent", modes, objective=ctx.inputs.objective, known=got.plan)
    signed = signed_project(plan, ap)
    assert [(c.offer, c.nodes, c.months) for c in signed.commitments] == [("r", 1, 3)]
    ref = run_strategy(
        signed,
        ap.offers,
        ap.sizings,
        Strategy("rent"),
        modes,
        resize=ap.resize,
        solver="cbc",
        time_limit=None,
        gap=1e-6,
        objective=ctx.inputs.objective,
    )
    assert rec.plan is not None and rec.path in (RECOURSE_LP, RECOURSE_MIP)
    assert rec.plan.total_cost == pytest.approx(ref.plan.total_cost) == pytest.approx(80_000)
    assert rec.bound is not None and rec.bound <= rec.plan.total_cost + 0.02


# --- the report on real programmes -------------------------------------------------------------------------


def _near_deadlines(tmp_path):
    """The 12-month example cut to the pretraining and two fine-tunes, each due sooner: near its deadlines."""
    import yaml

    src = yaml.safe_load((EXAMPLES / "programme-12-months.yaml").read_text())
    jobs = src["workloads"][:3]
    for w in jobs:
        w["deadline_days"] = w["earliest_start_days"] + int(0.8 * (w["deadline_days"] - w["earliest_start_days"]))
    src["workloads"] = jobs
    path = tmp_path / "near.yaml"
    path.write_text(yaml.safe_dump(src, sort_keys=False))
    return path


@pytest.mark.slow  # a real programme: the base plan and 20 scenarios with recourse
@pytest.mark.parametrize("which", ["example", "near-deadlines"])
def test_the_report_states_the_committed_plan_and_the_headline_lies_inside_it(which, tmp_path):
    import json

    from helpers import cli

    path = EXAMPLES / "programme-12-months.yaml" if which == "example" else _near_deadlines(tmp_path)
    out = tmp_path / "a.json"
    res = cli("analyze", path, "--monte-carlo", "20", "--monte-carlo-bounds", "3", "--workers", "1", "--json", out)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    u = doc["uncertainty"]
    assert u["mode"] == "policy" and u["figures"] == "committed plan" and u["scenarios"] == 20
    free = u["strategies"]["hybrid"]
    headline = doc["base"]["total_cost"]
    assert free["p10"] <= headline <= free["p90"]
    p = free["runs_as_decided_probability"]
    assert 0 <= p <= 1 and free["recourse_share"] == pytest.approx(1 - p, abs=1e-4)
    assert free["recourse_scenarios"] == round(free["recourse_share"] * free["plans"])
    assert sum(free["solved_by"].values()) == 20
    w = free["value_of_waiting"]
    assert w["scenarios"] == 3 and 0 <= w["low"] <= w["high"] and "value of waiting" in w["label"]
    text = " ".join(res.output.split())
    assert "the committed cost of today's plan of each strategy" in text
    assert "runs as decided" in text and "value of waiting" in text


def test_the_value_of_waiting_says_why_it_is_missing_without_highs(monkeypatch):
    """Without HiGHS the value of waiting's LP bounds cannot be solved: the figure is absent and the summary says
    why (it used to disappear without a word); with HiGHS the same run brackets it."""
    import sys

    p, offers, hours = case({**UNCERTAIN, "uncertainty": {**UNCERTAIN["uncertainty"], "mfu": None}})
    monkeypatch.setitem(sys.modules, "highspy", None)  # import highspy -> ImportError
    a = run(p, offers, hours, monte_carlo=4, bounds=2)
    assert a.summary.strategies["hybrid"]["value_of_waiting"] is None
    assert "highspy is not installed" in a.summary.bounds_missing
    from procure.reports.analysis_json import analysis_to_json

    assert "highspy is not installed" in analysis_to_json(a)["uncertainty"]["value_of_waiting_missing"]
    import io

    from openpyxl import load_workbook

    from procure.reports.xlsx.analysis import analysis_workbook_bytes

    book = load_workbook(io.BytesIO(analysis_workbook_bytes(a)))
    notes = [c.value for ws in book for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any(n.startswith("Value of waiting: not computed") for n in notes)  # the workbook says it too
    monkeypatch.delitem(sys.modules, "highspy")
    a = run(p, offers, hours, monte_carlo=4, bounds=2)
    assert a.summary.bounds_missing is None and a.summary.strategies["hybrid"]["value_of_waiting"]["scenarios"] == 2
