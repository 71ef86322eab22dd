"""Decision analytics on cases worked out by hand: break-even prices, the tornado, Monte Carlo, compare.

The hand-worked case (hours fixed, as in test_planner): one 90-day job (2,160 h on one node), due day
120, a 12-month horizon, electricity 0, no colocation or maintenance, so each offer's cost is one line:

    cloud c   2,160 h × 20/h                           = 43,200        ← today's optimum
    buy   b   100,000 × (1 − 0.5 residual)             = 50,000        (break-even: 0.5·P = 43,200 → P = 86,400)
    rent  r   days 0–90 lie in months 0, 1, 2: 3 × 20,000 = 60,000     (break-even: 3·p = 43,200 → p = 14,400)
    cloud d   2,160 h × 25/h                           = 54,000        (the dearer twin: break-even 20, c's price)
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from procure.analysis import Context, montecarlo as mc
from procure.analysis.engine import solve_scenario
from procure.analysis.scenario import Scenario
from procure.cli import app
from procure.common.errors import InputError
from procure.models.analysis import AnalysisSettings
from procure.models.project import load_project

from helpers import CATALOG, UNCERTAIN, WORKLOAD, analysis_case as case, analysis_run as run, offer, solve_fixed


def by_subject(a):
    return {b.subject: b for b in a.break_even}


# --- break-even --------------------------------------------------------------------------------------


def test_break_even_prices_match_the_hand_worked_stand_alone_costs():
    p, offers, hours = case()
    a = run(p, offers, hours, break_even=True)
    assert a.base.plan.total_cost == pytest.approx(43_200)
    be = by_subject(a)
    assert be["d"].break_even == pytest.approx(
        20.0, abs=0.005
    )  # the dearer twin breaks even at the cheaper twin's price
    assert be["d"].field == "price_per_node_hour" and be["d"].current == 25.0
    assert be["b"].break_even == pytest.approx(86_400.0, abs=0.01)
    assert be["b"].change_pct == pytest.approx(-13.6, abs=0.01)
    assert be["r"].break_even == pytest.approx(14_400.0, abs=0.01)
    # single-mode strategies that lost: buy-only at 0.864 of today's buy prices, rent-only at 0.72
    assert be["buy only"].break_even == pytest.approx(0.864, abs=2e-4)
    assert be["rent only"].break_even == pytest.approx(0.72, abs=2e-4)
    assert "cloud only" not in be  # cloud-only is today's optimum: it did not lose


@pytest.mark.parametrize("oid", ["b", "r", "d"])
def test_a_cent_below_the_break_even_price_the_offer_is_chosen(oid):
    p, offers, hours = case()
    a = run(p, offers, hours, break_even=True)
    price = by_subject(a)[oid].break_even
    field = {"b": "price_per_node", "r": "price_per_node_month", "d": "price_per_node_hour"}[oid]
    cheaper = [o.model_copy(update={field: price - 0.01}) if o.id == oid else o for o in offers]
    res = solve_fixed(p, cheaper, hours, gap=0.0)
    assert [x.offer_id for x in res.plan.assignments] == [oid]
    # and a cent above it, it is not
    dearer = [o.model_copy(update={field: price + 0.01}) if o.id == oid else o for o in offers]
    assert [x.offer_id for x in solve_fixed(p, dearer, hours, gap=0.0).plan.assignments] == ["c"]


def test_no_price_wins_when_the_lead_time_misses_the_deadline():
    # delivery on day 60 + 90 days of training ends day 150 > deadline 120: no price helps
    p, offers, hours = case(lead_b=60)
    be = by_subject(run(p, offers, hours, break_even=True))
    assert be["b"].break_even is None and be["b"].change_pct is None
    assert "deadline" in be["b"].reason and "lead time 60 days" in be["b"].reason


def test_no_price_wins_when_even_free_other_costs_keep_it_out():
    # a free server still pays 12 months × 5,000 colocation = 60,000 > 43,200 on the cloud
    costly = offer(
        mode="buy",
        id="b2",
        price_per_node=100_000,
        residual_value_pct=0.5,
        maintenance_pct_per_year=0,
        colocation_per_node_month=5_000,
    )
    p, offers, hours = case(extra=[costly])
    be = by_subject(run(p, offers, hours, break_even=True))
    assert be["b2"].break_even is None
    assert "even free" in be["b2"].reason and "60,000" in be["b2"].reason


# --- sensitivity -------------------------------------------------------------------------------------


def test_tornado_ends_re_cost_the_decided_plan_and_say_where_the_decision_changes():
    # the decided plan (cloud c) at each driver's end, re-costed: cloud × 0.8: 34,560; × 1.2: 51,840. Re-optimized
    # at each end: × 0.8 the cloud stays cheapest (34,560 < buying's 50,000); × 1.2 buying b wins at 50,000 <
    # 51,840: the decision changes there and flips from cloud to buy, and the bar shows both figures.
    p, offers, hours = case({"sensitivity": {"price_cloud": {"low": 0.8, "high": 1.2}}})
    a = run(p, offers, hours, sensitivity=True)
    bar = next(b for b in a.sensitivity if b.driver == "price_cloud")
    assert bar.tco("low") == pytest.approx(34_560)
    assert bar.tco("high") == pytest.approx(51_840)
    assert bar.modes("low") == ("cloud",) and bar.modes("high") == ("cloud",)
    assert not bar.reoptimized("low") and not bar.reoptimized("high")
    assert bar.optimum("low") == pytest.approx(34_560) and not bar.changes("low")
    assert bar.optimum("high") == pytest.approx(50_000) and bar.optimum_modes("high") == ("buy",)
    assert bar.changes("high") and bar.flips
    tokens = next(b for b in a.sensitivity if b.driver == "tokens")  # default ±20%: hours × 0.8 / × 1.2
    assert tokens.tco("low") == pytest.approx(0.8 * 43_200)
    assert tokens.tco("high") == pytest.approx(1.2 * 43_200)  # 108 days ≤ 120: it runs as decided
    assert tokens.tco("high", "buy") == pytest.approx(50_000)  # the buy plan of today, re-costed
    mfu = next(b for b in a.sensitivity if b.driver == "mfu")  # throughput × 1.2: hours ÷ 1.2
    assert mfu.tco("high") == pytest.approx(43_200 / 1.2)
    slip = next(
        b for b in a.sensitivity if b.driver == "deadline_slip_days"
    )  # −30 days: due day 90, 90-day job still fits
    assert slip.tco("low") == pytest.approx(43_200)
    recost = sum(len(b.low.strategies) + len(b.high.strategies) for b in a.sensitivity)
    paths = dict(a.solved_by["sensitivity"])
    assert paths.pop("recost") == recost
    # and one re-optimization of the free strategy per end, every end of every driver
    assert sum(paths.values()) == 2 * len(a.sensitivity)


def test_a_tornado_end_where_the_plan_still_runs_but_another_wins_says_so_in_every_report(tmp_path):
    # Today's plan (cloud c, 2,160 h × 20 = 43,200) barely beats buying b2 (86,500 × (1 − 0.5) = 43,250, no
    # other cost). At cloud × 1.002 the cloud plan still runs as decided and costs 43,286.40, but buying b2 now
    # wins at 43,250: the decision changes and flips to buy. The old tornado said "flips: no" here.
    from openpyxl import Workbook
    from rich.console import Console

    from procure.reports.analysis_console import print_analysis
    from procure.reports.analysis_json import analysis_to_json
    from procure.reports.i18n import lang_for as lang
    from procure.reports.xlsx.analysis import write_sensitivity

    near = offer(
        mode="buy", id="b2", price_per_node=86_500, residual_value_pct=0.5, maintenance_pct_per_year=0
    ).model_copy(update={"colocation_per_node_month": 0})
    p, offers, hours = case({"sensitivity": {"price_cloud": {"low": 0.99, "high": 1.002}}}, extra=[near])
    a = run(p, offers, hours, sensitivity=True)
    assert a.base.plan.total_cost == pytest.approx(43_200)
    bar = next(b for b in a.sensitivity if b.driver == "price_cloud")
    assert bar.tco("high") == pytest.approx(43_286.40) and not bar.reoptimized("high")
    assert bar.changes("high") and bar.optimum("high") == pytest.approx(43_250) and bar.flips
    assert not bar.changes("low") and bar.optimum("low") == pytest.approx(42_768)
    frame = a.sensitivity_frame().set_index("driver").loc["price_cloud"]  # the Python API says the same
    assert frame["high_decision_changes"] and frame["high_optimum"] == pytest.approx(43_250)
    assert frame["high_optimum_modes"] == "buy" and not frame["low_decision_changes"]
    row = next(r for r in analysis_to_json(a)["sensitivity"] if r["driver"] == "price_cloud")
    assert row["flips"] is True and row["high_decision_changes"] is True and row["low_decision_changes"] is False
    assert row["high_tco"] == 43_286.40 and row["high_optimum"] == 43_250 and row["high_optimum_modes"] == ["buy"]
    for code, stands, changes in (("en", "stands", "changes: buy, 43,250"), ("zh-CN", "不变", "改变：")):
        con = Console(width=250, record=True)
        print_analysis(con, a, tr=lang(code))
        text = con.export_text()
        line = next(x for x in text.splitlines() if "price_cloud" in x)
        assert stands in line and changes in line.replace("USD", "").replace("  ", " ")
    wb = Workbook()
    write_sensitivity(wb.active, a)
    ws = wb.active
    cells = {c.value: c for r in ws.iter_rows() for c in r if isinstance(c.value, str)}
    assert "Tornado: change of today's plan's TCO against today (USD)" in {ws._charts[0].title.tx.rich.p[0].r[0].t}
    assert "changes: buy" in cells and "stands" in cells


def test_a_tornado_end_where_the_plan_breaks_is_re_optimized_and_says_so():
    # tokens × 1.5: 135 days on one node, past the deadline: nothing runs it (no plan); tokens × 0.5 re-costs
    p, offers, hours = case({"sensitivity": {"tokens": {"low": 0.5, "high": 1.5}}})
    a = run(p, offers, hours, sensitivity=True)
    bar = next(b for b in a.sensitivity if b.driver == "tokens")
    assert bar.tco("low") == pytest.approx(0.5 * 43_200) and not bar.reoptimized("low")
    assert bar.reoptimized("high") and bar.tco("high") is None


def test_a_higher_cloud_price_never_lowers_the_optimum():
    p, offers, hours = case()
    a = run(p, offers, hours)
    ctx = Context.of(a.inputs, a.base)
    levels = [0.25, 0.5, 0.8, 1.0, 1.1, 1.2, 1.5, 2.0, 4.0]
    totals = [
        solve_scenario(ctx, Scenario.of(f"k{k}", {"price_cloud": k})).strategies["hybrid"].total_cost for k in levels
    ]
    assert all(b >= a_ - 1e-6 for a_, b in zip(totals, totals[1:], strict=False))
    assert totals[-1] == pytest.approx(50_000)  # capped by buying


# --- Monte Carlo -------------------------------------------------------------------------------------


@pytest.mark.slow  # over 3 s on two cores
def test_monte_carlo_is_deterministic_per_seed_and_its_percentiles_are_ordered():
    p, offers, hours = case(UNCERTAIN)
    a1 = run(p, offers, hours, monte_carlo=12)
    a2 = run(p, offers, hours, monte_carlo=12)
    h1 = run(p, offers, hours, monte_carlo=12, monte_carlo_mode="hindsight").scenarios_frame()
    assert h1.equals(run(p, offers, hours, monte_carlo=12, monte_carlo_mode="hindsight").scenarios_frame())
    f1, f2 = a1.scenarios_frame(), a2.scenarios_frame()
    assert f1.equals(f2)
    other = run(p, offers, hours, monte_carlo=12, seed=12).scenarios_frame()
    assert not other["price_cloud"].equals(f1["price_cloud"])
    assert len(f1) == 12 * 4  # one row per scenario and strategy, none dropped
    for name, v in a1.summary.strategies.items():
        if v["plans"]:
            assert v["p10"] <= v["p50"] <= v["p90"], name
    assert sum(v["win_probability"] for v in a1.summary.strategies.values()) == pytest.approx(1.0)


def test_regret_of_the_decided_plan_is_re_costed_not_re_optimized():
    p, offers, hours = case(
        {**UNCERTAIN, "uncertainty": {**UNCERTAIN["uncertainty"], "mfu": None}}
    )  # throughput as sized
    a = run(p, offers, hours, monte_carlo=30, monte_carlo_mode="hindsight")
    for o in a.monte_carlo:
        free = o.strategies["hybrid"]
        k, t = o.scenario.value("price_cloud"), o.scenario.value("tokens")
        # the decided plan is cloud c, kept: its bill scales with the price and the hours, nothing re-planned
        assert o.decided_cost == pytest.approx(43_200 * k * t)
        # the scenario's optimum is never above a plan we know is feasible in it
        assert free.total_cost <= o.decided_cost * (1 + 1e-9) + 0.01
        assert free.total_cost == pytest.approx(min(43_200 * k * t, 50_000))
        assert mc.regret(o, free.total_cost) >= 0
    assert a.summary.regret_scenarios == 30 and a.summary.decided_infeasible == 0
    regrets = [
        max(0.0, 43_200 * o.scenario.value("price_cloud") * o.scenario.value("tokens") - 50_000) for o in a.monte_carlo
    ]
    assert a.summary.regret_mean == pytest.approx(sum(regrets) / len(regrets))


def test_a_plan_that_cannot_run_as_decided_is_counted_not_dropped():
    # tokens × 1.5: the 90-day job takes 135 days > deadline 120 on one node — nothing can run it (the hours
    # band is held, mfu: null: its lower tail would otherwise let a lucky draw finish in 120 days)
    p, offers, hours = case(
        {"uncertainty": {"tokens": {"dist": "triangular", "low": 1.45, "mode": 1.5, "high": 1.55}, "mfu": None}}
    )
    a = run(p, offers, hours, monte_carlo=3, monte_carlo_mode="hindsight")
    assert a.summary.failed == 3 and a.summary.decided_infeasible == 3
    df = a.scenarios_frame()
    assert len(df) == 12 and set(df.status) == {"infeasible"}
    assert df[df.strategy == "hybrid"].detail.str.contains("deadline").all()


@pytest.mark.slow  # over 3 s on two cores
def test_workers_give_the_same_answers_as_one_process():
    p, offers, hours = case(UNCERTAIN)
    one = run(p, offers, hours, monte_carlo=6, sensitivity=True).scenarios_frame()
    two = run(p, offers, hours, monte_carlo=6, sensitivity=True, workers=2).scenarios_frame()
    assert one.equals(two)
    for mode in ("recourse", "hindsight"):
        one = run(p, offers, hours, monte_carlo=6, monte_carlo_mode=mode).scenarios_frame()
        assert one.equals(run(p, offers, hours, monte_carlo=6, monte_carlo_mode=mode, workers=2).scenarios_frame())


def test_a_dask_cluster_runs_the_same_code_path():
    distributed = pytest.importorskip(
        "distributed", reason="the dask extra is not installed: pip install 'procure[dask]'"
    )
    p, offers, hours = case(UNCERTAIN)
    local = run(p, offers, hours, monte_carlo=4).scenarios_frame()
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = run(p, offers, hours, monte_carlo=4, scheduler=cluster.scheduler_address).scenarios_frame()
    assert local.equals(remote)


# --- settings ----------------------------------------------------------------------------------------


def test_analysis_settings_are_strict_and_say_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="low <= mode <= high"):
        AnalysisSettings.model_validate(
            {"uncertainty": {"mfu": {"dist": "triangular", "low": 1.2, "mode": 1.0, "high": 1.3}}}
        )
    f = tmp_path / "w.yaml"
    f.write_text(
        "name: x\nworkloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n"
        "analysis:\n  sensitivity:\n    price_clod: {low: 0.8, high: 1.2}\n"
    )
    with pytest.raises(InputError) as exc:
        load_project(f)
    text = str(exc.value.problems[0])
    assert "analysis.sensitivity.price_clod" in text and ":6:" in text and "did you mean 'price_cloud'" in text


# --- the command line --------------------------------------------------------------------------------


def test_compare_shows_the_difference_of_two_files_that_differ_in_one_price(tmp_path):
    for name, price in (("a", 30.0), ("b", 33.0)):
        (tmp_path / f"{name}-offers.yaml").write_text(CATALOG.format(price=price))
        (tmp_path / f"{name}.yaml").write_text(WORKLOAD.format(catalog=f"{name}-offers.yaml"))
    out = tmp_path / "cmp.json"
    res = CliRunner().invoke(app, ["compare", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--json", str(out)])
    assert res.exit_code == 0, res.output
    rows = {(r["section"], r["label"]): r for r in json.loads(out.read_text())["rows"]}
    total = rows[("totals", "total cost")]
    # one cloud offer, the same hours: the bill is 10% higher, and nothing else moves
    assert total["differences"][1] == pytest.approx(0.1 * total["values"][0])
    assert rows[("costs", "cloud")]["differences"][1] == pytest.approx(total["differences"][1])
    assert not rows[("plan", "ft")]["changed"] and not rows[("costs", "capex")]["changed"]
    assert "* total cost" in res.output


def test_monte_carlo_without_declared_uncertainty_draws_the_hours_band(tmp_path):
    # nothing declared: --monte-carlo draws the hours from the calibrated band (it used to be refused)
    (tmp_path / "o.yaml").write_text(CATALOG.format(price=30.0))
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(catalog="o.yaml"))
    res = CliRunner().invoke(app, ["analyze", str(tmp_path / "w.yaml"), "--monte-carlo", "5"])
    assert res.exit_code == 0, res.output
    assert "Uncertainty, a Monte Carlo of 5 sampled scenarios" in res.output and "Traceback" not in res.output


def test_a_strategy_the_scenario_cannot_improve_keeps_todays_plan_without_a_solve():
    # buy × 1.2: every buy coefficient is dearer and today's plan (cloud c) does not buy: it stays optimal
    # (43,200) with no re-solve; cloud-only is untouched; buy-only is re-solved: 0.5 × 120,000 = 60,000.
    # buy × 0.8: 0.5 × 80,000 = 40,000 < 43,200: the free plan is re-solved and now buys.
    p, offers, hours = case()
    a = run(p, offers, hours)
    ctx = Context.of(a.inputs, a.base)
    high = solve_scenario(ctx, Scenario.of("hi", {"price_buy": 1.2})).strategies
    assert high["hybrid"].total_cost == pytest.approx(43_200) and not high["hybrid"].solved
    assert not high["cloud"].solved and not high["rent"].solved
    assert high["buy"].solved and high["buy"].total_cost == pytest.approx(60_000)
    low = solve_scenario(ctx, Scenario.of("lo", {"price_buy": 0.8})).strategies
    assert (
        low["hybrid"].solved and low["hybrid"].total_cost == pytest.approx(40_000) and low["hybrid"].modes == ("buy",)
    )
    assert not low["cloud"].solved and low["cloud"].total_cost == pytest.approx(43_200)


def test_monte_carlo_mfu_defaults_to_the_calibrated_band():
    # Uncertainty without mfu (or none at all): mfu is drawn from the calibrated band of hours, hours ×
    # the band's quantile of a uniform draw; a declared mfu is kept; mfu: null holds it.
    import numpy as np

    from procure.analysis.montecarlo import HoursBand, distributions, draw
    from procure.solver.sizing.constants import constant

    s = AnalysisSettings.model_validate(
        {"uncertainty": {"price_cloud": {"dist": "triangular", "low": 0.9, "mode": 1.0, "high": 1.1}}}
    )
    d = distributions(s)
    assert set(d) == {"price_cloud", "mfu"} and isinstance(d["mfu"], HoursBand)
    assert set(distributions(AnalysisSettings())) == {"mfu"}
    # the drawn hours multipliers (1 / mfu) have the band's P10 and P90 relative to its median: 2,000 draws,
    # sampling error of a 10 % quantile about ±1.5 % here
    hours = np.array([1.0 / sc.value("mfu") for sc in draw(AnalysisSettings(seed=3), n=2000)])
    p10, p50, p90 = np.percentile(hours, [10, 50, 90])
    assert p50 == pytest.approx(1.0, abs=0.01)
    assert p10 == pytest.approx(constant("HOURS_BAND_P10") / constant("HOURS_BAND_P50"), rel=0.015)
    assert p90 == pytest.approx(constant("HOURS_BAND_P90") / constant("HOURS_BAND_P50"), rel=0.015)
    own = AnalysisSettings.model_validate(
        {"uncertainty": {"mfu": {"dist": "triangular", "low": 0.9, "mode": 1.0, "high": 1.1}}}
    )
    assert distributions(own)["mfu"].low == 0.9
    held = AnalysisSettings.model_validate(
        {"uncertainty": {"price_cloud": {"dist": "triangular", "low": 0.9, "mode": 1.0, "high": 1.1}, "mfu": None}}
    )
    assert set(distributions(held)) == {"price_cloud"}


# --- the time limit of solve --analyze ------------------------------------------------------------


def test_a_deadline_already_passed_skips_every_analysis_and_names_each():
    """``solve --analyze --time-limit`` hands the analysis a deadline; an analysis that cannot finish by
    then is skipped and named, never reported half-done. Here the deadline has passed before the first
    analysis starts: the base plan (43,200, as above) stands, and all three are skipped in run order."""
    import io
    import time

    from rich.console import Console

    from procure.reports.analysis_console import print_analysis
    from procure.reports.analysis_json import analysis_to_json

    p, offers, hours = case(UNCERTAIN)
    a = run(p, offers, hours, break_even=True, sensitivity=True, monte_carlo=5, seed=1, deadline=time.time() - 1.0)
    assert a.base.plan.total_cost == pytest.approx(43_200)
    assert a.skipped == ["sensitivity", "break_even", "monte_carlo"]
    assert a.sensitivity is None and a.break_even is None and a.monte_carlo is None and a.summary is None
    assert analysis_to_json(a)["skipped"] == ["sensitivity", "break_even", "monte_carlo"]
    buf = io.StringIO()
    print_analysis(Console(file=buf, width=200), a)
    assert (
        "Skipped, the --time-limit ran out first: the sensitivity tornado, the break-even prices, the Monte Carlo study"
        in buf.getvalue()
    )


def test_with_time_left_nothing_is_skipped_and_the_json_has_no_skipped_key():
    import time

    p, offers, hours = case()
    a = run(p, offers, hours, break_even=True, deadline=time.time() + 600)
    assert a.skipped == [] and by_subject(a)["b"].break_even == pytest.approx(86_400.0, abs=0.01)
    from procure.reports.analysis_json import analysis_to_json

    assert "skipped" not in analysis_to_json(a)


def test_each_solve_of_the_analysis_ends_by_the_deadline():
    """Baseline.solve_time_limit: the per-solve limit, cut to what is left before the deadline."""
    import time

    from procure.analysis.scenario import Baseline

    p, offers, _hours = case()
    free = Baseline(p, offers, [], resize=None, time_limit=None)
    assert free.solve_time_limit() is None
    assert Baseline(p, offers, [], resize=None, time_limit=30.0).solve_time_limit() == 30.0
    soon = Baseline(p, offers, [], resize=None, time_limit=30.0, deadline=time.time() + 5.0).solve_time_limit()
    assert 0 < soon <= 5.0
    late = Baseline(p, offers, [], resize=None, time_limit=None, deadline=time.time() - 1.0).solve_time_limit()
    assert 0 < late <= 1e-3  # past the deadline a solve still gets a (tiny) positive limit, never none


def test_analyze_with_no_compare_is_refused_before_reading_the_workload(tmp_path):
    """A usage error before any work: the workload file does not even exist, and the usage error is
    what the user reads (exit 1), not 'file not found' and not a solve."""
    res = CliRunner().invoke(app, ["solve", str(tmp_path / "missing.yaml"), "--analyze", "--no-compare"])
    assert res.exit_code == 1, res.output
    assert "--analyze compares the strategies; drop --no-compare" in res.output
    assert "not found" not in res.output


def test_tornado_differences_that_round_to_nothing_show_0_not_minus_0():
    # the Sensitivity sheet's "low − today" cells: a difference under half a unit is written as 0 (the
    # money format picks its negative section by the sign, so −0.2 showed "-0 USD"); larger ones as they are
    from openpyxl import Workbook

    from procure.reports.xlsx.analysis import write_sensitivity
    from procure.reports.xlsx.style import signed_amount

    assert signed_amount(-0.2) == 0.0 and signed_amount(0.49) == 0.0 and signed_amount(-0.5) == -0.5
    p, offers, hours = case({"sensitivity": {"price_cloud": {"low": 0.99999, "high": 1.2}}})
    a = run(p, offers, hours, sensitivity=True)
    wb = Workbook()
    write_sensitivity(wb.active, a)
    ws = wb.active
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "price_cloud")
    # 43,200 × 0.99999 − 43,200 = −0.432: under half a unit
    assert ws.cell(row, 7).value == f'=IF(ISNUMBER(E{row}),IF(ABS(E{row}-$E$4)<0.5,0,E{row}-$E$4),"")'
